// Kùzu matches homomorphically: injectivity is the explicit <> conditions (persons by the order).
// ACTS: the actor and actress credits as one relationship table, as distinct (person, title) pairs.
MATCH (p1:Person)-[:ACTS]->(t1:Title)<-[:ACTS]-(p2:Person),
      (p2)-[:ACTS]->(t2:Title)<-[:ACTS]-(p3:Person),
      (p3)-[:ACTS]->(t3:Title)<-[:ACTS]-(p1)
WHERE id(p1) < id(p2) AND id(p2) < id(p3)
  AND t1 <> t2 AND t2 <> t3 AND t1 <> t3
WITH p1, p2, p3, count(*) AS n
RETURN sum(n) AS embeddings, count(*) AS triples
