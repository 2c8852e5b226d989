-- Credits as distinct (person, title) pairs, as gemp's anonymous relationships are existence checks;
-- SQL joins are homomorphic, so injectivity is the explicit <> conditions.
WITH acts AS (
  SELECT DISTINCT c.nconst AS p, c.tconst AS t
  FROM title_principals c JOIN title_basics b ON b.tconst = c.tconst
  WHERE c.category = 'actor' AND b.titleType = 'movie'
), jack AS (
  SELECT nconst FROM name_basics WHERE contains(primaryName, 'Jack')
)
SELECT count(*) AS embeddings
FROM acts a1 JOIN jack ON jack.nconst = a1.p
JOIN acts a2 ON a2.t = a1.t
JOIN acts a3 ON a3.t = a1.t
JOIN acts a4 ON a4.t = a1.t
WHERE a2.p < a3.p AND a3.p < a4.p AND a1.p <> a2.p AND a1.p <> a3.p AND a1.p <> a4.p
