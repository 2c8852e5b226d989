// Train Benchmark RouteSensor repair: the route requires the sensor (MERGE: once per pair, however
// many switch positions lead to it).
MATCH (route:Route)-[:follows]->(swP:SwitchPosition)-[:target]->(sw:Switch)-[:monitoredBy]->(sensor:Sensor)
WHERE NOT (route)-[:requires]->(sensor)
MERGE (route)-[:requires]->(sensor)
