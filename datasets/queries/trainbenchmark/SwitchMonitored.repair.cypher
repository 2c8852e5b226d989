// Train Benchmark SwitchMonitored repair: give every unmonitored switch a new sensor. The
// metamodel's opposite reference (Sensor.monitors) is created too, as EMF would.
MATCH (sw:Switch)
WHERE NOT EXISTS { MATCH (sw)-[:monitoredBy]->(:Sensor) }
CREATE (sw)-[:monitoredBy]->(sensor:Sensor:RailwayElement),
       (sensor)-[:monitors]->(sw)
