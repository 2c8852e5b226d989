// Kùzu version of ../SemaphoreNeighbor.repair.cypher. Differences as in SemaphoreNeighbor.cypher:
// TrackElement as (te:Segment:Switch), the pattern predicate as NOT EXISTS { MATCH ... }, and
// relationship isomorphism as id(..) <> id(..). Same two statements: route2's old entry is removed,
// then the new one is set (MERGE: once per route and semaphore).
MATCH (semaphore:Semaphore)<-[:exit]-(route1:Route)-[rq1:requires]->(sensor1:Sensor)
      <-[mb1:monitoredBy]-(te1:Segment:Switch)-[:connectsTo]->(te2:Segment:Switch)
      -[mb2:monitoredBy]->(sensor2:Sensor)<-[rq2:requires]-(route2:Route),
      (route2)-[old:entry]->(:Semaphore)
WHERE id(route1) <> id(route2)
  AND id(mb1) <> id(mb2) AND id(rq1) <> id(rq2)
  AND NOT EXISTS { MATCH (route2)-[:entry]->(semaphore) }
DELETE old;

MATCH (semaphore:Semaphore)<-[:exit]-(route1:Route)-[rq1:requires]->(sensor1:Sensor)
      <-[mb1:monitoredBy]-(te1:Segment:Switch)-[:connectsTo]->(te2:Segment:Switch)
      -[mb2:monitoredBy]->(sensor2:Sensor)<-[rq2:requires]-(route2:Route)
WHERE id(route1) <> id(route2)
  AND id(mb1) <> id(mb2) AND id(rq1) <> id(rq2)
  AND NOT EXISTS { MATCH (route2)-[:entry]->(semaphore) }
MERGE (route2)-[:entry]->(semaphore)
