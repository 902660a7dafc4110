"""fabric planner engine: pure Python, no UI imports."""
