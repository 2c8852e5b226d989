// Train Benchmark SemaphoreNeighbor: route1 exits at a semaphore and requires a sensor of a
// track element connected to a track element whose sensor route2 requires, and route2 does
// not enter at that semaphore.
MATCH (semaphore:Semaphore)<-[:exit]-(route1:Route)-[:requires]->(sensor1:Sensor)
      <-[:monitoredBy]-(te1:TrackElement)-[:connectsTo]->(te2:TrackElement)
      -[:monitoredBy]->(sensor2:Sensor)<-[:requires]-(route2:Route)
WHERE id(route1) <> id(route2)
  AND NOT (route2)-[:entry]->(semaphore)
RETURN semaphore, route1, route2, sensor1, sensor2, te1, te2
