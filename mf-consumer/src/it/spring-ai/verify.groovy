// The application context started and a call went through the routing model.
def log = new File(basedir, 'build.log').text
assert log =~ /routed to (small|large)/
assert log.contains('Tests run: 1, Failures: 0, Errors: 0')
return true
