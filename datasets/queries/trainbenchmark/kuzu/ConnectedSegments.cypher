// Kùzu version of ../ConnectedSegments.cypher (run by scripts/trainbenchmark_kuzu.py).
// Differences: Kùzu matches homomorphically (one relationship may bind two relationship
// patterns), gemp with Cypher's relationship isomorphism; so the relationships are named and
// those of one type kept pairwise distinct with id(..) <> id(..) (a 2-cycle s1 -> s2 -> s1 could
// otherwise bind c1 and c3 to one relationship). The conditions are in `WITH * WHERE` after the
// MATCH, not in its WHERE: there Kùzu 0.11's planner joins differently and a 20-region model
// exhausts a 1 GiB buffer pool (same rows either way). The runner counts the rows: it replaces
// the final RETURN by RETURN count(*), as gemp's example counts without materialising them.
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
RETURN sensor, s1, s2, s3, s4, s5, s6
