// Kùzu matches homomorphically: injectivity is the explicit <> conditions (persons by id() order).
// ACTS: the actor and actress credits as one relationship table, as distinct (person, title) pairs.
// Written as three MATCH stages: as one MATCH of the whole cycle, Kùzu 0.11 filled its buffer pool
// (6 GiB here; 19.8 GB resident without a limit) and failed after two minutes on the 100k-person graph.
MATCH (p1:Person)-[:ACTS]->(t1:Title)<-[:ACTS]-(p2:Person)
WHERE id(p1) < id(p2)
WITH p1, p2, t1
MATCH (p2)-[:ACTS]->(t2:Title)<-[:ACTS]-(p3:Person)
WHERE id(p2) < id(p3) AND t2 <> t1
WITH p1, p2, p3, t1, t2
MATCH (p3)-[:ACTS]->(t3:Title)<-[:ACTS]-(p1)
WHERE t3 <> t1 AND t3 <> t2
WITH p1, p2, p3, count(*) AS n
RETURN sum(n) AS embeddings, count(*) AS triples
