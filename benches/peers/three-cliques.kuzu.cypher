// Kùzu matches homomorphically: the order on the persons keeps them distinct.
// ACTS: the actor and actress credits as one relationship table, as distinct (person, title) pairs.
MATCH (p1:Person)-[:ACTS]->(t:Title)<-[:ACTS]-(p2:Person),
      (p3:Person)-[:ACTS]->(t)
WHERE id(p1) < id(p2) AND id(p2) < id(p3)
WITH p1, p2, p3, count(*) AS shared
WHERE shared >= 3
RETURN count(*) AS triples, sum(shared) AS embeddings
