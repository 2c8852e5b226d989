// Kùzu matches homomorphically: injectivity is the explicit <> conditions on persons and titles.
// ACTS: the actor and actress credits as one relationship table, as distinct (person, title) pairs.
// Written as three MATCH stages, as costar-triangle.kuzu.cypher; every embedding is enumerated (it
// may hit the cap or its buffer pool on workload 1, which the table then shows).
MATCH (p1:Person)-[:ACTS]->(t1:Title)<-[:ACTS]-(p2:Person)
WHERE p1 <> p2
WITH p1, p2, t1
MATCH (p2)-[:ACTS]->(t2:Title)<-[:ACTS]-(p3:Person)
WHERE t2 <> t1 AND p3 <> p1 AND p3 <> p2
WITH p1, p2, p3, t1, t2
MATCH (p3)-[:ACTS]->(t3:Title)<-[:ACTS]-(p1)
WHERE t3 <> t1 AND t3 <> t2
RETURN count(*) AS embeddings
