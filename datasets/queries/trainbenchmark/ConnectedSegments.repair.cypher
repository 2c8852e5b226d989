// Train Benchmark ConnectedSegments repair: segment s2 is deleted (with its relationships) and s1
// is connected to s3. The new connections are made before any deletion, so overlapping matches
// (a longer chain) all apply.
MATCH (sensor:Sensor)<-[:monitoredBy]-(s1:Segment)-[:connectsTo]->(s2:Segment)
      -[:connectsTo]->(s3:Segment)-[:connectsTo]->(s4:Segment)
      -[:connectsTo]->(s5:Segment)-[:connectsTo]->(s6:Segment),
      (s2)-[:monitoredBy]->(sensor), (s3)-[:monitoredBy]->(sensor),
      (s4)-[:monitoredBy]->(sensor), (s5)-[:monitoredBy]->(sensor),
      (s6)-[:monitoredBy]->(sensor)
MERGE (s1)-[:connectsTo]->(s3)
DETACH DELETE s2
