// Actor-director pairs with at least two shared titles: embeddings (a, t, d) of those pairs, and pairs.
MATCH (a:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:DIRECTOR]-(d:Person)
WITH a, d, count(t) AS together
WHERE together >= 2
RETURN sum(together) AS embeddings, count(*) AS pairs
