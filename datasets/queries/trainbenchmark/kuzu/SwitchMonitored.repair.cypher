// Kùzu version of ../SwitchMonitored.repair.cypher. Differences: the new sensor is created as
// Sensor only (a Kùzu node has one label, its node table; gemp adds RailwayElement). Both
// directions (monitoredBy and its opposite monitors) are created, as in gemp.
MATCH (sw:Switch)
WHERE NOT EXISTS { MATCH (sw)-[:monitoredBy]->(:Sensor) }
CREATE (sw)-[:monitoredBy]->(sensor:Sensor),
       (sensor)-[:monitors]->(sw)
