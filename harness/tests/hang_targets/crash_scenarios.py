from crashprobe import scenario


@scenario("app/jobs.py:run_job")
def claimed_job(world):
    world.seed_sqlite("jobs.db", "CREATE TABLE jobs(id INTEGER PRIMARY KEY, done INTEGER); INSERT INTO jobs VALUES (1, 0);")
    return {"db_path": world.path("jobs.db"), "claim_path": world.path("job.claim")}
