"""Durable jobs: every timer that must outlive the process is a row of the `jobs` table, run once across
processes by the handler registered for its kind (`JobQueue`)."""

from bot.jobs.queue import Handler, JobQueue, Later
from bot.jobs.store import Job, NewJob, Scope

__all__ = ["Handler", "Job", "JobQueue", "Later", "NewJob", "Scope"]
