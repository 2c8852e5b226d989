WITH acts AS (
  SELECT DISTINCT nconst AS p, tconst AS t FROM title_principals WHERE category IN ('actor', 'actress')
), couples AS (
  SELECT a.p AS p1, b.p AS p2, count(*) AS shared
  FROM acts a JOIN acts b ON b.t = a.t AND a.p < b.p
  GROUP BY a.p, b.p
  HAVING count(*) >= 3
)
SELECT count(*) AS pairs, sum(shared) AS embeddings FROM couples
