// Train Benchmark SwitchSet inject: switches move to the next position (FAILURE -> STRAIGHT ->
// DIVERGING -> FAILURE, the benchmark's (ordinal + 1) mod 3). Ten at a time: the first ten switches
// by id whose position no switch position contradicts yet. The selection is marked with a
// temporary label so that each switch moves exactly once (one statement per position).
MATCH (sw:Switch)
WHERE NOT EXISTS { MATCH (p:SwitchPosition)-[:target]->(sw) WHERE p.position <> sw.currentPosition }
WITH sw ORDER BY sw.id LIMIT 10
SET sw:SwitchSetInject;

MATCH (sw:SwitchSetInject)
WHERE sw.currentPosition = 'FAILURE'
SET sw.currentPosition = 'STRAIGHT'
REMOVE sw:SwitchSetInject;

MATCH (sw:SwitchSetInject)
WHERE sw.currentPosition = 'STRAIGHT'
SET sw.currentPosition = 'DIVERGING'
REMOVE sw:SwitchSetInject;

MATCH (sw:SwitchSetInject)
SET sw.currentPosition = 'FAILURE'
REMOVE sw:SwitchSetInject
