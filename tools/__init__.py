"""Developer tools (not imported by the app): Babel extractors."""
