// Kùzu version of ../PosLength.repair.cypher: the same statement.
MATCH (segment:Segment)
WHERE segment.length <= 0
SET segment.length = -segment.length + 1
