"""The server's house-rule lab: its HTTP routes and the worker process that runs its jobs."""
