// The program ran through the routing model and said which model answered.
def log = new File(basedir, 'build.log').text
assert log =~ /answered by (small|large) after 1 attempt\(s\)/
assert log.contains('Tests run: 1, Failures: 0, Errors: 0')
return true
