// Train Benchmark RouteSensor: a sensor monitoring a switch that a route follows, which the route
// does not require.
MATCH (route:Route)-[:follows]->(swP:SwitchPosition)-[:target]->(sw:Switch)-[:monitoredBy]->(sensor:Sensor)
WHERE NOT (route)-[:requires]->(sensor)
RETURN route, sensor, swP, sw
