"""Session reports: the header, the summary table, JSON, Markdown and the HTML review page."""
