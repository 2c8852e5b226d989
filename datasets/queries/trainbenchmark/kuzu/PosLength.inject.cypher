// Kùzu version of ../PosLength.inject.cypher: the same statement (first ten segments by id with a
// positive length get the length 0).
MATCH (segment:Segment)
WHERE segment.length > 0
WITH segment ORDER BY segment.id LIMIT 10
SET segment.length = 0
