// Couples: pairs of people who acted together in at least three titles.
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person)
WHERE id(p1) < id(p2)
WITH p1, p2, count(t) AS shared
WHERE shared >= 3
RETURN p1.primaryName, p2.primaryName, shared
ORDER BY shared DESC, p1.primaryName, p2.primaryName
