// Co-star triangles through three distinct titles (datasets/queries/costar-triangle.cypher).
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t1:Title)<-[:ACTOR|ACTRESS]-(p2:Person),
      (p2)-[:ACTOR|ACTRESS]->(t2:Title)<-[:ACTOR|ACTRESS]-(p3:Person),
      (p3)-[:ACTOR|ACTRESS]->(t3:Title)<-[:ACTOR|ACTRESS]-(p1)
WHERE id(p1) < id(p2) AND id(p2) < id(p3)
RETURN count(*) AS embeddings, count(DISTINCT [id(p1), id(p2), id(p3)]) AS triples
