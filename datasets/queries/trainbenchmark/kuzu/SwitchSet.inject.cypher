// Kùzu version of ../SwitchSet.inject.cypher. Differences: Kùzu has no labels to add to a node,
// so instead of the gemp version's temporary label SwitchSetInject and one statement per position,
// one statement selects the same ten switches (first ten by id whose position no switch position
// contradicts yet) and moves each to the next position with CASE (FAILURE -> STRAIGHT ->
// DIVERGING -> FAILURE; anything else -> FAILURE, as the gemp version's last statement).
MATCH (sw:Switch)
WHERE NOT EXISTS { MATCH (p:SwitchPosition)-[:target]->(sw) WHERE p.position <> sw.currentPosition }
WITH sw ORDER BY sw.id LIMIT 10
SET sw.currentPosition = CASE sw.currentPosition
                           WHEN 'FAILURE' THEN 'STRAIGHT'
                           WHEN 'STRAIGHT' THEN 'DIVERGING'
                           ELSE 'FAILURE' END
