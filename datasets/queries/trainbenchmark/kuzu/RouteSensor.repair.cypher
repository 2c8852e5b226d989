// Kùzu version of ../RouteSensor.repair.cypher. Differences: the pattern predicate is written
// NOT EXISTS { MATCH ... } (Kùzu has no pattern predicates in WHERE). MERGE creates one
// `requires` per (route, sensor) pair, however many switch positions lead to it, as in gemp.
MATCH (route:Route)-[:follows]->(swP:SwitchPosition)-[:target]->(sw:Switch)-[:monitoredBy]->(sensor:Sensor)
WHERE NOT EXISTS { MATCH (route)-[:requires]->(sensor) }
MERGE (route)-[:requires]->(sensor)
