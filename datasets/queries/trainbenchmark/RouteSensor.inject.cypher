// Train Benchmark RouteSensor inject: routes stop requiring a sensor (a `requires` reference is
// removed). Ten at a time: the first ten (route, sensor) pairs by route id, then sensor id.
MATCH (route:Route)-[r:requires]->(sensor:Sensor)
WITH route, r, sensor ORDER BY route.id, sensor.id LIMIT 10
DELETE r
