SELECT 'it''s', E'a\'b', $$x;y$$, $tag$ $$ $tag$, U&"d\0061", B'01', X'ff', N'n' /* a /* nested */ ; */ -- c;
FROM t WHERE a = $1;
SELECT 2