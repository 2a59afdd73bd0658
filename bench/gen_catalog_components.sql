-- Components of the bench catalog (12 per image), half of them per session: -v part=0 or 1.
-- Two sessions in parallel because imx_version_key() (the generated version_key) costs ~35 us a
-- row and there are 1.2 million rows.
\timing on
INSERT INTO image_components (image_id, name, version)
SELECT i.id, c.name, c.version
FROM images i,
     LATERAL (SELECT (i.id - 1) % 500 AS f, (i.id - 1) / 500 AS n) k,
     bench_stack st,
     LATERAL (VALUES
       ('nvidia-driver', st.branch || '.' || (60 + k.n % 120) || '.0' || (1 + k.n % 9)),
       ('cuda', st.cuda), ('cudnn', st.cudnn), ('nccl', st.nccl),
       ('python', CASE WHEN k.n % 2 = 0 THEN '3.11.9' ELSE '3.12.3' END),
       (st.fw, st.fw_version),
       ('nvidia-container-toolkit', '1.' || (15 + k.n % 4) || '.' || (k.n % 6)),
       ('dcgm', '3.3.' || (k.n % 9)), ('efa', '1.' || (30 + k.n % 9) || '.0'),
       ('linux-kernel', '6.8.0-' || (1000 + k.n)), ('openssl', '3.0.' || (2 + k.n % 13)),
       ('gcc', '12.2.0')) c(name, version)
WHERE st.s = k.f % 6 AND i.id % 2 = :part;

