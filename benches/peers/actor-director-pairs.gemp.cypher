// Actor-director pairs with at least two shared titles: embeddings (a, t, d) of those pairs, and pairs.
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (a:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:DIRECTOR]-(d:Person)
WITH a, d, count(t) AS together
WHERE together >= 2
RETURN sum(together) AS embeddings, count(*) AS pairs
