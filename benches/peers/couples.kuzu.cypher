// Kùzu matches homomorphically: the order on the persons keeps them distinct.
// ACTS: the actor and actress credits as one relationship table, as distinct (person, title) pairs.
MATCH (p1:Person)-[:ACTS]->(t:Title)<-[:ACTS]-(p2:Person)
WHERE id(p1) < id(p2)
WITH p1, p2, count(*) AS shared
WHERE shared >= 3
RETURN count(*) AS pairs, sum(shared) AS embeddings
