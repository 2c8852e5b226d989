// Kùzu version of ../SemaphoreNeighbor.inject.cypher: the same statement (the first ten routes by
// id that still have an entry lose it).
MATCH (route:Route)-[e:entry]->(:Semaphore)
WITH route, e ORDER BY route.id LIMIT 10
DELETE e
