// Kùzu version of ../ConnectedSegments.inject.cypher. Differences: a Kùzu node has one label
// (its node table), so the new segment is created as Segment only (gemp gives it
// Segment:TrackElement:RailwayElement; queries here match TrackElement as Segment:Switch). The
// relationships of the pattern have distinct types, so relationship isomorphism needs no extra
// condition. Otherwise the same statement: same selection (first ten by segment1.id, segment3.id,
// sensor.id), same creations and deletion.
MATCH (region:Region)-[:elements]->(segment1:Segment)-[c:connectsTo]->(segment3:Segment),
      (segment1)-[:monitoredBy]->(sensor:Sensor)
WHERE segment1.id IS NOT NULL AND segment3.id IS NOT NULL
WITH region, segment1, c, segment3, sensor
  ORDER BY segment1.id, segment3.id, sensor.id LIMIT 10
CREATE (segment1)-[:connectsTo]->(segment2:Segment {length: 1}),
       (segment2)-[:connectsTo]->(segment3),
       (segment2)-[:monitoredBy]->(sensor), (sensor)-[:monitors]->(segment2),
       (region)-[:elements]->(segment2)
DELETE c
