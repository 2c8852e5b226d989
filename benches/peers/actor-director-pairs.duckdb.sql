-- Distinct (person, title) credits; injectivity (actor <> director) explicit.
-- Ids as integers (the digits of nm…/tt…): DuckDB joins and compares them faster than strings.
WITH acts AS (
  SELECT DISTINCT CAST(substr(nconst, 3) AS INTEGER) AS p, CAST(substr(tconst, 3) AS INTEGER) AS t
  FROM title_principals WHERE category IN ('actor', 'actress')
), directs AS (
  SELECT DISTINCT CAST(substr(nconst, 3) AS INTEGER) AS p, CAST(substr(tconst, 3) AS INTEGER) AS t
  FROM title_principals WHERE category = 'director'
), pairs AS (
  SELECT a.p AS actor, d.p AS director, count(*) AS together
  FROM acts a JOIN directs d ON d.t = a.t
  WHERE a.p <> d.p
  GROUP BY a.p, d.p
  HAVING count(*) >= 2
)
SELECT sum(together) AS embeddings, count(*) AS pairs FROM pairs
