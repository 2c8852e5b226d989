// Train Benchmark ConnectedSegments: six segments in a connectsTo chain, all monitored by the
// same sensor.
MATCH (sensor:Sensor)<-[:monitoredBy]-(s1:Segment)-[:connectsTo]->(s2:Segment)
      -[:connectsTo]->(s3:Segment)-[:connectsTo]->(s4:Segment)
      -[:connectsTo]->(s5:Segment)-[:connectsTo]->(s6:Segment),
      (s2)-[:monitoredBy]->(sensor), (s3)-[:monitoredBy]->(sensor),
      (s4)-[:monitoredBy]->(sensor), (s5)-[:monitoredBy]->(sensor),
      (s6)-[:monitoredBy]->(sensor)
RETURN sensor, s1, s2, s3, s4, s5, s6
