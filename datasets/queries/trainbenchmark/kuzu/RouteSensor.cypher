// Kùzu version of ../RouteSensor.cypher. Differences: Kùzu has no pattern predicates in WHERE,
// so NOT (route)-[:requires]->(sensor) is written NOT EXISTS { MATCH ... } (same meaning). The
// pattern's relationships have distinct types, so relationship isomorphism needs no condition.
// The runner counts the rows: it replaces the final RETURN by RETURN count(*).
MATCH (route:Route)-[:follows]->(swP:SwitchPosition)-[:target]->(sw:Switch)-[:monitoredBy]->(sensor:Sensor)
WHERE NOT EXISTS { MATCH (route)-[:requires]->(sensor) }
RETURN route, sensor, swP, sw
