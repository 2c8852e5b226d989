// 3-cliques: three people who all acted together in at least three common titles.
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person),
      (p3:Person)-[:ACTOR|ACTRESS]->(t)
WHERE id(p1) < id(p2) AND id(p2) < id(p3)
WITH p1, p2, p3, count(t) AS shared
WHERE shared >= 3
RETURN count(*) AS triples, sum(shared) AS embeddings
