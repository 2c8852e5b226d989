// Kùzu matches homomorphically: injectivity is the explicit <> condition.
// ACTS: the actor and actress credits as one relationship table, as distinct (person, title) pairs.
MATCH (a:Person)-[:ACTS]->(t:Title)<-[:DIRECTOR]-(d:Person)
WHERE a <> d
WITH a, d, count(*) AS together
WHERE together >= 2
RETURN sum(together) AS embeddings, count(*) AS pairs
