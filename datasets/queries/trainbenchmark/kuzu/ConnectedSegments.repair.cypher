// Kùzu version of ../ConnectedSegments.repair.cypher. Differences: relationship isomorphism is
// written out as id(..) <> id(..) conditions, in `WITH * WHERE` after the MATCH (see
// ConnectedSegments.cypher). gemp runs the MATCH to the end, then every MERGE, then every
// DETACH DELETE; Kùzu pipelines a statement, so `WITH DISTINCT` (a hash aggregation, which reads
// all its input before it emits a row) is put first after the match, so that every match is
// found before anything changes, and again after the MERGE, so that every new connection is made
// before any deletion (overlapping matches, a longer chain, all apply, as in gemp). DISTINCT does
// not change the outcome: MERGE and DETACH DELETE are idempotent per (s1, s3) and per s2.
MATCH (sensor:Sensor)<-[m1:monitoredBy]-(s1:Segment)-[c1:connectsTo]->(s2:Segment)
      -[c2:connectsTo]->(s3:Segment)-[c3:connectsTo]->(s4:Segment)
      -[c4:connectsTo]->(s5:Segment)-[c5:connectsTo]->(s6:Segment),
      (s2)-[m2:monitoredBy]->(sensor), (s3)-[m3:monitoredBy]->(sensor),
      (s4)-[m4:monitoredBy]->(sensor), (s5)-[m5:monitoredBy]->(sensor),
      (s6)-[m6:monitoredBy]->(sensor)
WITH * WHERE id(c1) <> id(c2) AND id(c1) <> id(c3) AND id(c1) <> id(c4) AND id(c1) <> id(c5)
  AND id(c2) <> id(c3) AND id(c2) <> id(c4) AND id(c2) <> id(c5)
  AND id(c3) <> id(c4) AND id(c3) <> id(c5) AND id(c4) <> id(c5)
  AND id(m1) <> id(m2) AND id(m1) <> id(m3) AND id(m1) <> id(m4) AND id(m1) <> id(m5)
  AND id(m1) <> id(m6) AND id(m2) <> id(m3) AND id(m2) <> id(m4) AND id(m2) <> id(m5)
  AND id(m2) <> id(m6) AND id(m3) <> id(m4) AND id(m3) <> id(m5) AND id(m3) <> id(m6)
  AND id(m4) <> id(m5) AND id(m4) <> id(m6) AND id(m5) <> id(m6)
WITH DISTINCT s1, s2, s3
MERGE (s1)-[:connectsTo]->(s3)
WITH DISTINCT s2
DETACH DELETE s2
