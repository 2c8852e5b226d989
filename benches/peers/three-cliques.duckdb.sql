-- 3-cliques: three persons in >= 3 common titles; p1 < p2 < p3 keeps them distinct (SQL joins are homomorphic).
-- Ids as integers (the digits of nm…/tt…): DuckDB joins and compares them faster than strings.
WITH acts AS (
  SELECT DISTINCT CAST(substr(nconst, 3) AS INTEGER) AS p, CAST(substr(tconst, 3) AS INTEGER) AS t
  FROM title_principals WHERE category IN ('actor', 'actress')
), cliques AS (
  SELECT a.p AS p1, b.p AS p2, c.p AS p3, count(*) AS shared
  FROM acts a
  JOIN acts b ON b.t = a.t AND a.p < b.p
  JOIN acts c ON c.t = a.t AND b.p < c.p
  GROUP BY a.p, b.p, c.p
  HAVING count(*) >= 3
)
SELECT count(*) AS triples, sum(shared) AS embeddings FROM cliques
