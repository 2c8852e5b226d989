// Parameters and numeric filters: well-rated movies since a given year (default run: --param year=2000).
MATCH (m:Movie)
WHERE m.startYear >= $year AND m.averageRating >= 8.0 AND m.numVotes > 100
RETURN m.primaryTitle, m.startYear, m.averageRating
ORDER BY m.averageRating DESC, m.primaryTitle
LIMIT 20
