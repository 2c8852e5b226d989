// Train Benchmark SemaphoreNeighbor repair: route2 enters at the semaphore. `entry` is
// single-valued, so route2's old entry is removed first, then the new one is set (MERGE: once per
// route and semaphore).
MATCH (semaphore:Semaphore)<-[:exit]-(route1:Route)-[:requires]->(sensor1:Sensor)
      <-[:monitoredBy]-(te1:TrackElement)-[:connectsTo]->(te2:TrackElement)
      -[:monitoredBy]->(sensor2:Sensor)<-[:requires]-(route2:Route),
      (route2)-[old:entry]->(:Semaphore)
WHERE id(route1) <> id(route2)
  AND NOT (route2)-[:entry]->(semaphore)
DELETE old;

MATCH (semaphore:Semaphore)<-[:exit]-(route1:Route)-[:requires]->(sensor1:Sensor)
      <-[:monitoredBy]-(te1:TrackElement)-[:connectsTo]->(te2:TrackElement)
      -[:monitoredBy]->(sensor2:Sensor)<-[:requires]-(route2:Route)
WHERE id(route1) <> id(route2)
  AND NOT (route2)-[:entry]->(semaphore)
MERGE (route2)-[:entry]->(semaphore)
