// Kùzu version of ../SemaphoreNeighbor.cypher. Differences: a Kùzu node has one label (its node
// table), so the abstract class TrackElement is matched as the union of its concrete classes,
// (te:Segment:Switch). Kùzu has no pattern predicates in WHERE: NOT (route2)-[:entry]->(semaphore)
// is written NOT EXISTS { MATCH ... }. Kùzu matches homomorphically: the two monitoredBy (and the
// two requires) relationships are kept distinct with id(..) <> id(..), as Cypher's relationship
// isomorphism does in gemp (the requires condition already follows from route1 <> route2).
// The runner counts the rows: it replaces the final RETURN by RETURN count(*).
MATCH (semaphore:Semaphore)<-[:exit]-(route1:Route)-[rq1:requires]->(sensor1:Sensor)
      <-[mb1:monitoredBy]-(te1:Segment:Switch)-[:connectsTo]->(te2:Segment:Switch)
      -[mb2:monitoredBy]->(sensor2:Sensor)<-[rq2:requires]-(route2:Route)
WHERE id(route1) <> id(route2)
  AND id(mb1) <> id(mb2) AND id(rq1) <> id(rq2)
  AND NOT EXISTS { MATCH (route2)-[:entry]->(semaphore) }
RETURN semaphore, route1, route2, sensor1, sensor2, te1, te2
