-- Couples: distinct (person, title) acting credits; p1 < p2 keeps the persons distinct (SQL joins are homomorphic).
-- Ids as integers (the digits of nm…/tt…): DuckDB joins and compares them faster than strings.
WITH acts AS (
  SELECT DISTINCT CAST(substr(nconst, 3) AS INTEGER) AS p, CAST(substr(tconst, 3) AS INTEGER) AS t
  FROM title_principals WHERE category IN ('actor', 'actress')
), couples AS (
  SELECT a.p AS p1, b.p AS p2, count(*) AS shared
  FROM acts a JOIN acts b ON b.t = a.t AND a.p < b.p
  GROUP BY a.p, b.p
  HAVING count(*) >= 3
)
SELECT count(*) AS pairs, sum(shared) AS embeddings FROM couples
