SELECT;
SELECT FROM generate_series(1, 2);
SELECT 1 AS "  bunch o blanks  ";
SELECT 'y' AS "  bunch o blanks  ", 1 AS n;
SELECT E'a\u0085b' AS x, 'y' AS "  bunch o blanks  ";
SELECT E'a\u0085b\x01\x7Fc\u009F' AS controls, 2 AS n;
SELECT E'tab\there' AS t, E'cr\rx' AS r, E'two\nlines' AS l;
SELECT 'あいう' AS wide, E'e\u0301' AS combining, 'x' AS "名前";
