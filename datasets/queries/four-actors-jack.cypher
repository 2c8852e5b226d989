// Four actors in the same movie, one of them named Jack (the GEMP paper's running example).
// id() ordering of a2..a4 reports each set of co-stars once.
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (a1:Person)-[:ACTOR]->(m:Movie)<-[:ACTOR]-(a2:Person),
      (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person)
WHERE a1.primaryName CONTAINS 'Jack'
  AND id(a2) < id(a3) AND id(a3) < id(a4)
RETURN m.primaryTitle, a1.primaryName, a2.primaryName, a3.primaryName, a4.primaryName
ORDER BY m.primaryTitle, a1.primaryName, a2.primaryName, a3.primaryName, a4.primaryName
LIMIT 100
