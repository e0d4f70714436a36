"""Motion reconstruction: natural coordinates, OTM, Lee, joint angles."""
