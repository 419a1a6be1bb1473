"""Targets the crash-point tests run: a folder of their own, so only these lines are call sites."""
import sqlite3


def append_two_lines(handle):
    handle.write("debit\n")
    handle.write("credit\n")


def insert_rows(conn, rows):
    conn.executemany("INSERT INTO t (n) VALUES (?)", [(n,) for n in rows])


SCRIPT = """
    CREATE TABLE a (n);
    SELECT 1;
    INSERT INTO a VALUES (1);
    CREATE TABLE b (n);
"""


def run_script(conn):
    conn.executescript(SCRIPT)


def count(path, sql):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def send(conn, sql):
    conn.execute(sql)


def insert_then_insert_again(conn):
    send(conn, "INSERT INTO t (n) VALUES (1)")
    send(conn, "INSERT INTO t (n) VALUES (2)")  # the same statement but for its literal, from another line
