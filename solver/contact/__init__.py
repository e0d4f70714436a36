"""Ground contact forces estimated from motion alone (Brubaker, Sigal & Fleet 2009)."""
