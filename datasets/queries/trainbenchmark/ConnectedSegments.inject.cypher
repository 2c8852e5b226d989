// Train Benchmark ConnectedSegments inject: a new segment (length 1, in segment1's region,
// monitored by the sensor, both directions of the reference) is inserted between two connected
// segments segment1 -> segment3, one of whose sensors it gets. Ten at a time: the first ten
// (segment1, segment3, sensor) by id among connections of segments that have ids (new segments
// have none, so each run takes connections not touched before).
MATCH (region:Region)-[:elements]->(segment1:Segment)-[c:connectsTo]->(segment3:Segment),
      (segment1)-[:monitoredBy]->(sensor:Sensor)
WHERE segment1.id IS NOT NULL AND segment3.id IS NOT NULL
WITH region, segment1, c, segment3, sensor
  ORDER BY segment1.id, segment3.id, sensor.id LIMIT 10
CREATE (segment1)-[:connectsTo]->(segment2:Segment:TrackElement:RailwayElement {length: 1}),
       (segment2)-[:connectsTo]->(segment3),
       (segment2)-[:monitoredBy]->(sensor), (sensor)-[:monitors]->(segment2),
       (region)-[:elements]->(segment2)
DELETE c
