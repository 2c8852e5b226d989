// An actor (or actress) and a director who made at least two titles together.
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (a:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:DIRECTOR]-(d:Person)
WITH a, d, count(t) AS together
WHERE together >= 2
RETURN a.primaryName AS actor, d.primaryName AS director, together
ORDER BY together DESC, actor, director
