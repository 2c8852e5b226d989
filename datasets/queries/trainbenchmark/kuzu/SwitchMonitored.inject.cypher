// Kùzu version of ../SwitchMonitored.inject.cypher. Differences: Kùzu has no labels to add to a
// node (one node table per node), so the gemp version's temporary label SwitchMonitoredInject is
// not used; instead each statement makes the same selection (the first ten monitored switches by
// id) itself. The `monitors` relationships go first: that statement leaves `monitoredBy`, which
// decides the selection, untouched, so the second statement selects the same ten switches.
MATCH (sw:Switch)
WHERE EXISTS { MATCH (sw)-[:monitoredBy]->(:Sensor) }
WITH sw ORDER BY sw.id LIMIT 10
MATCH (:Sensor)-[m:monitors]->(sw)
DELETE m;

MATCH (sw:Switch)
WHERE EXISTS { MATCH (sw)-[:monitoredBy]->(:Sensor) }
WITH sw ORDER BY sw.id LIMIT 10
MATCH (sw)-[m:monitoredBy]->(:Sensor)
DELETE m
