// Co-star cycles: p1, p2, p3 distinct persons, t1, t2, t3 distinct titles, each title shared by two of
// them around the cycle; every ordered embedding counted (no symmetry breaking: billions on workload 1).
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t1:Title)<-[:ACTOR|ACTRESS]-(p2:Person)-[:ACTOR|ACTRESS]->(t2:Title)<-[:ACTOR|ACTRESS]-(p3:Person)-[:ACTOR|ACTRESS]->(t3:Title)<-[:ACTOR|ACTRESS]-(p1)
RETURN count(*) AS embeddings
