// Train Benchmark SwitchMonitored inject: switches lose all their monitoring sensors (both
// directions of the monitoredBy / monitors reference, as EMF removes an opposite). Ten at a time:
// the first ten monitored switches by id. A statement cannot delete a group of relationships per
// selected node, so the selection is marked with a temporary label, used, and removed.
MATCH (sw:Switch)
WHERE EXISTS { MATCH (sw)-[:monitoredBy]->(:Sensor) }
WITH sw ORDER BY sw.id LIMIT 10
SET sw:SwitchMonitoredInject;

MATCH (sw:SwitchMonitoredInject)-[m:monitoredBy]->(:Sensor)
DELETE m;

MATCH (:Sensor)-[m:monitors]->(sw:SwitchMonitoredInject)
DELETE m;

MATCH (sw:SwitchMonitoredInject)
REMOVE sw:SwitchMonitoredInject
