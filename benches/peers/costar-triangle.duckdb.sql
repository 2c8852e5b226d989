-- Co-star edges (p < q sharing title t), then triangles of them through three distinct titles.
-- Ids as integers (the digits of nm…/tt…): DuckDB joins and compares them faster than strings.
WITH acts AS (
  SELECT DISTINCT CAST(substr(nconst, 3) AS INTEGER) AS p, CAST(substr(tconst, 3) AS INTEGER) AS t
  FROM title_principals WHERE category IN ('actor', 'actress')
), costar AS (
  SELECT a.p AS p, b.p AS q, a.t AS t FROM acts a JOIN acts b ON b.t = a.t AND a.p < b.p
), triangles AS (
  SELECT x.p AS p1, x.q AS p2, y.q AS p3, count(*) AS n
  FROM costar x
  JOIN costar y ON y.p = x.q
  JOIN costar z ON z.p = x.p AND z.q = y.q
  WHERE x.t <> y.t AND y.t <> z.t AND x.t <> z.t
  GROUP BY x.p, x.q, y.q
)
SELECT sum(n) AS embeddings, count(*) AS triples FROM triangles
