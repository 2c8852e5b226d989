// Kùzu version of ../RouteSensor.inject.cypher: the same statement (the first ten (route, sensor)
// pairs by route id, then sensor id, lose their `requires` relationship).
MATCH (route:Route)-[r:requires]->(sensor:Sensor)
WITH route, r, sensor ORDER BY route.id, sensor.id LIMIT 10
DELETE r
